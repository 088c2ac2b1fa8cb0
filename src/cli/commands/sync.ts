// svc sync <id>: the same command as `svc cobro sync <id>`.
export { run } from './cobro/sync.js';
