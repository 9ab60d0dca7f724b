import { declareBool } from '../../common/config.js';

export const STATS = declareBool({
  name: 'TSMPI_STATS', layer: 'mpir',
  description: 'At MPI.Finalize, hand every performance variable (MPI.T) to the process manager for the job\'s ' +
    'statistics table (set by tsmpiexec --stats; under another launcher the values go into its key-value space unread).',
  default: false,
});
