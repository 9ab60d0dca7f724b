export { RankSegment } from './rank-segment.js';
export { ShmemDevice } from './device.js';
export { PairLayout } from './layout.js';
export { readShmemConfig, type ShmemConfig } from './config.js';
