export { PmiClient, type LineChannel, type PmiMaxes } from './client.js';
export { PmiServer, type PmiServerOptions, type SpawnOutcome } from './server.js';
export { formatLine, parseLine, LineSplitter, PMI_MAXLINE, type PmiMessage } from './wire.js';
export { formatSpawnBlocks, SpawnAssembler, type SpawnBlock, type SpawnRequest } from './spawn-wire.js';
export { PmiRouter } from './router.js';
export { NameService } from './name-service.js';
