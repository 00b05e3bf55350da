/** Activities of the contract envelope workflow: ids in, ids and statuses out (no tokens, addresses or documents). */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { AppConfig } from '../../platform/config';
import {
  advanceEnvelope,
  closeEnvelope,
  expireEnvelope,
  inviteSigners,
  remindSigners,
  type AttemptInfo,
  type EnvelopeDeps,
  type EnvelopeIds,
} from './envelope.service';
import { Context } from '@temporalio/activity';
import type { Logger } from '../../platform/logger';
import { createMessagingDeps, type MessagingDeps } from '../email';

/** Temporal's attempt counter, so a signer's row can say when the next attempt comes (1 outside an activity). */
function attemptInfo(): AttemptInfo {
  try {
    const info = Context.current().info;
    return { attempt: info.attempt, firstScheduledMs: info.scheduledTimestampMs };
  } catch {
    return { attempt: 1, firstScheduledMs: Date.now() };
  }
}

export interface ContractActivityOptions {
  orm: MikroORM;
  config: AppConfig;
  log: Logger;
  messaging?: MessagingDeps;
}

export function createContractActivities(opts: ContractActivityOptions) {
  let deps: EnvelopeDeps | undefined;
  const d = (): EnvelopeDeps => {
    if (!deps) {
      const messaging = opts.messaging ?? createMessagingDeps(opts.config);
      deps = {
        orm: opts.orm,
        transport: messaging.transport,
        gateway: messaging.gateway,
        publicBaseUrl: opts.config.publicBaseUrl,
        log: opts.log,
      };
    }
    return deps;
  };
  return {
    advanceEnvelope: (input: EnvelopeIds) => advanceEnvelope(d(), input),
    inviteSigners: (input: EnvelopeIds & { signerIds: string[] }) => inviteSigners(d(), input, attemptInfo()),
    remindSigners: (input: EnvelopeIds & { intervalMs: number }) => remindSigners(d(), input),
    expireEnvelope: (input: EnvelopeIds) => expireEnvelope(d(), input),
    closeEnvelope: (input: EnvelopeIds & { status: string }) => closeEnvelope(d(), input),
  };
}
