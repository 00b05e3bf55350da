import type { AppConfig } from '../config';
import type { ImageResolver } from '../../modules/companies';
import { resolveImageInput } from '../../modules/images';

/** Image fields re-host through the workspace image store with this deployment's public URL and allow-list. */
export function imageResolver(config: AppConfig): ImageResolver {
  return (ctx, value) =>
    resolveImageInput(ctx, value, { publicBaseUrl: config.publicBaseUrl, allowHosts: config.outboundAllowHosts });
}
