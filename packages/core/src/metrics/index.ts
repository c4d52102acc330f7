export * from './metric-names.js';
export { isTimeZone, localMidnight, periodStart, periodStarts } from './periods.js';
export * from './email-metrics.js';
export * from './get-email-metrics.js';
export * from './broadcast-analytics.js';
