export { ucxDescriptor } from './descriptor.js';
export { UcxDevice } from './device.js';
export { readUcxConfig, type UcxConfig } from './config.js';
