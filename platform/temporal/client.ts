/**
 * Every Temporal Client of this product is built here, so none misses the payload codec
 * (TEMPORAL_PAYLOAD_KEYS): API, worker, tests and benchmarks alike.
 */
import { Client, type ConnectionLike } from '@temporalio/client';
import type { AppConfig } from '../config';
import { crmDataConverter } from './codec';

export function createTemporalClient(
  connection: ConnectionLike,
  config: Pick<AppConfig, 'temporalNamespace' | 'temporalCodec'>,
): Client {
  return new Client({
    connection,
    namespace: config.temporalNamespace,
    dataConverter: crmDataConverter(config.temporalCodec.payloadKeys),
  });
}
