export { shmemDescriptor } from './descriptor.js';
export { ShmemDevice } from './device.js';
export { readShmemConfig, type ShmemConfig } from './config.js';
