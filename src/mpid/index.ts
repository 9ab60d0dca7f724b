export { World } from './world.js';
export { Engine, type ProgressHook } from './engine.js';
export { Progress } from './progress.js';
export {
  Request as CoreRequest, KIND_SEND, KIND_RECV, KIND_GREQ, MODE_STANDARD, MODE_SYNC, MODE_READY, MODE_BUFFERED, STATE_DONE,
  type CompletionListener,
} from './request.js';
export type { Unexpected } from './unexpected.js';
