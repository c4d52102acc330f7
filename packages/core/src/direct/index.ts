export * from './mta-sts.js';
export * from './tls-rpt.js';
export * from './sending-pools.js';
export * from './tls-report-run.js';
