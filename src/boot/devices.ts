import { sciDescriptor } from '../ch_sci/index.js';
import { shmemDescriptor } from '../ch_shmem/index.js';
import { ucxDescriptor } from '../ch_ucx/index.js';
import type { DeviceDescriptor } from '../mpid/device.js';
import { selfDescriptor } from '../mpid/self-device.js';

/**
 * Every device tsmpi can run, one line each: adding a device is its folder (which exports its
 * DeviceDescriptor) plus a line here. The order only breaks ties of priority.
 */
export const DEVICES: readonly DeviceDescriptor[] = [
  selfDescriptor,
  shmemDescriptor,
  sciDescriptor,
  ucxDescriptor,
];
