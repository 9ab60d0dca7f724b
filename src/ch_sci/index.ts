export { sciDescriptor } from './descriptor.js';
export { SciDevice } from './device.js';
export { segmentIdOf } from './peer.js';
export { readSciConfig, type SciConfig } from './config.js';
export { ResourceCache } from './resources.js';
