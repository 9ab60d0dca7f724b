export { RankSegment } from './rank-segment.js';
export { SHMEM_SEGMENT_BYTES } from './config.js';
