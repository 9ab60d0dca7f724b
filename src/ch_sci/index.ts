export { SciDevice, segmentIdOf } from './device.js';
export { readSciConfig, type SciConfig } from './config.js';
export { ResourceCache } from './resources.js';
