import { declareInt, declareString } from '../common/config.js';

/**
 * Variables of the SISCI layer. The emulation library (native/sisci/sisci_emu.c) reads them
 * itself at SCIInitialize; they are declared here so tsmpiexec --help-env and the README list
 * them with their defaults.
 */
const layer = 'sisci';

export const SISCI_LIB = declareString({
  name: 'TSMPI_SISCI_LIB', layer,
  description: "Path of the SISCI library to load: Dolphin's libsisci on a real cluster; unset: tsmpi's emulation " +
    '(sisci_emu.so beside the addon: native/build/Release or prebuilds/<platform>-<arch>).',
  default: '', pattern: /^.*$/, patternText: 'a file path',
});

export const SCI_FAULTS = declareString({
  name: 'TSMPI_SCI_FAULTS', layer,
  description: 'Faults the emulation injects: seq=P (a sequence check fails, retriable), corrupt=P (a transfer flips a ' +
    'byte, reported by its sequence check), late=P (the tail of a transfer lands at the next store barrier), seed=N.',
  default: '', pattern: /^((seq|corrupt|late|seed)=[0-9.]+)?(,(seq|corrupt|late|seed)=[0-9.]+)*$/,
  patternText: 'seq=P,corrupt=P,late=P,seed=N (any subset)',
});

export const SCI_MAX_SEGMENTS = declareInt({
  name: 'TSMPI_SCI_MAX_SEGMENTS', layer,
  description: 'Emulation limit: local segments per process (beyond: SCI_ERR_NOSPC), so tests can exhaust resources.',
  default: 4096, min: 1, max: 1 << 30,
});

export const SCI_MAX_MAPPED = declareInt({
  name: 'TSMPI_SCI_MAX_MAPPED', layer,
  description: 'Emulation limit: bytes of local segments per process (beyond: SCI_ERR_NOSPC).',
  default: 2 ** 40, min: 1, max: 2 ** 50,
});

export const SCI_MAX_INTERRUPTS = declareInt({
  name: 'TSMPI_SCI_MAX_INTERRUPTS', layer,
  description: 'Emulation limit: local interrupts per process (beyond: SCI_ERR_NOSPC).',
  default: 1024, min: 1, max: 1 << 20,
});

export const SCI_MAX_CONNECTIONS = declareInt({
  name: 'TSMPI_SCI_MAX_CONNECTIONS', layer,
  description: 'Emulation limit: remote segments connected at once per process (the adapter\'s ATT entries and remote ' +
    'descriptors; beyond: SCI_ERR_NOSPC), so tests can make the ch_sci resource cache evict.',
  default: 4096, min: 1, max: 1 << 30,
});
