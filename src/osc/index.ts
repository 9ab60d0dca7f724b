/**
 * The one-sided window layer, between the API face (src/mpir/rma) and mpid: mpir/rma -> osc ->
 * mpid -> devices. osc imports nothing of mpir: the face hands it block lists, element kinds
 * and op codes (codes.ts), the window's group (WindowComm) and a few hooks (WindowHooks), and
 * maps the TsmpiError subclasses osc throws (RmaSyncError, RmaAttachError) to MPI error classes.
 */
export { ADMIT_DEFER, ADMIT_NO_EPOCH, ADMIT_NOW, Window, ranksApart, type WindowHooks, type WindowSettings } from './window.js';
export type { WindowComm } from './channel.js';
export type { HeldRequest } from './agent.js';
export * from './codes.js';
export { ACC, CAS, GET, GET_ACC, PUT } from './wire.js';
export { exposeUserMemory, removeUserMemory } from './exposed.js';
export type { LockPolicy } from './select.js';
export type { MethodSetting } from './select.js';
export { OSC_PVARS, oscCounters } from './counters.js';
