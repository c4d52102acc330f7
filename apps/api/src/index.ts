export * from './server.js';
export * from './config.js';
export * from './app.js';
export * from './acceptance.js';
export { emailToWire } from './routes/emails.routes.js';
export { parseBody } from './routes/parse-body.js';
export { parsePageQuery, pageArray } from './routes/pagination.js';
