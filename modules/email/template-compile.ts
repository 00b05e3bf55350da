import { escapeHtml } from '../../platform/shared/format.pure';

/**
 * The full HTML document of a template, built from bodyHtml + bodyCss + layoutSettings (pure).
 * Layout: width `full` (100%) or `fixed` (containerWidth px, default 600) aligned left/center/right;
 * backgroundColor applies to the page. The preheader is the hidden preview line mail clients show.
 */
export interface LayoutSettings {
  width?: 'full' | 'fixed';
  align?: 'left' | 'center' | 'right';
  containerWidth?: number;
  backgroundColor?: string;
  [key: string]: unknown;
}

const COLOR_RE = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30}|rgba?\([\d\s.,%]{1,40}\))$/;

/** CSS goes inside <style>: a `<` could close the element, so it is written as its CSS escape. */
const safeCss = (css: string): string => css.replace(/</g, '\\3c ');

export function compileTemplateHtml(input: {
  bodyHtml: string;
  bodyCss?: string | null;
  layoutSettings?: LayoutSettings | null;
  preheader?: string | null;
  title?: string | null;
}): string {
  const layout = input.layoutSettings ?? {};
  const fixed = layout.width === 'fixed';
  const width = fixed ? Math.round(Number(layout.containerWidth) || 600) : null;
  const align = fixed ? (layout.align ?? 'center') : 'left';
  const background =
    typeof layout.backgroundColor === 'string' && COLOR_RE.test(layout.backgroundColor) ? layout.backgroundColor : null;
  const margin = align === 'center' ? '0 auto' : align === 'right' ? '0 0 0 auto' : '0';
  const container = fixed ? `max-width:${width}px;width:100%;margin:${margin};` : 'width:100%;';
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    input.title ? `<title>${escapeHtml(input.title)}</title>` : '',
    input.bodyCss?.trim() ? `<style>${safeCss(input.bodyCss)}</style>` : '',
    '</head>',
    `<body style="margin:0;padding:0;${background ? `background-color:${background};` : ''}">`,
    input.preheader?.trim()
      ? `<div style="display:none;max-height:0;overflow:hidden;opacity:0">${escapeHtml(input.preheader)}</div>`
      : '',
    `<div class="email-container" style="${container}">`,
    input.bodyHtml,
    '</div></body></html>',
  ].join('');
}
