export * from './server.js';
export * from './config.js';
export * from './app.js';
export { mountRoutes, orderRoutes, type RouteMethod, type RouteSpec } from './routes/route-table.js';
export { emailToWire } from './routes/email-wire.js';
export { parseBody } from './routes/parse-body.js';
export { parsePageQuery, pageArray } from './routes/pagination.js';
