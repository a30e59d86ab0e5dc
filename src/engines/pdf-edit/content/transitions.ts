import { PDFName, type PDFDocument } from '@cantoo/pdf-lib';
import { num } from './units.js';

export type TransitionStyle = 'blinds' | 'box' | 'cover' | 'dissolve' | 'fade' | 'fly' | 'glitter' | 'push' | 'split' | 'uncover' | 'wipe' | 'none';
export type TransitionDirection = 'leftToRight' | 'bottomToTop' | 'rightToLeft' | 'topToBottom' | 'topLeftToBottomRight' | 'none';

export interface TransitionSpec {
  pages: readonly number[];
  style: TransitionStyle;
  direction: TransitionDirection;
  /** Seconds. */
  duration: number;
  flyScale: number;
  flyAreaOpaque: boolean;
  autoScroll: boolean;
  /** Seconds the page is shown before the next one in a presentation. */
  autoScrollTime: number;
}

/** /S of a transition dictionary per style (PDF 32000-1, Table 162); also used by the trans action of a link. */
export const TRANSITION_STYLE_NAMES: Record<TransitionStyle, string> = {
  blinds: 'Blinds',
  box: 'Box',
  cover: 'Cover',
  dissolve: 'Dissolve',
  fade: 'Fade',
  fly: 'Fly',
  glitter: 'Glitter',
  push: 'Push',
  split: 'Split',
  uncover: 'Uncover',
  wipe: 'Wipe',
  none: 'R',
};

/** /Di in degrees counterclockwise from left-to-right (PDF 32000-1, Table 162). */
const DIRECTIONS: Record<Exclude<TransitionDirection, 'none'>, number> = { leftToRight: 0, bottomToTop: 90, rightToLeft: 180, topToBottom: 270, topLeftToBottomRight: 315 };

/** The directions each style can move in (Table 162: 90 and 180 are Wipe only, 315 Glitter only). */
const DIRECTED: Partial<Record<TransitionStyle, readonly number[]>> = {
  wipe: [0, 90, 180, 270],
  glitter: [0, 270, 315],
  fly: [0, 270],
  cover: [0, 270],
  uncover: [0, 270],
  push: [0, 270],
};

/**
 * Sets the presentation transition (/Trans) and, with auto-scroll, the display duration (/Dur) of
 * the selected pages. "none" is the plain replace transition (/R). A direction is written only for
 * styles that move in one (the reference: "provided that it can be applied to the animation").
 */
export function setTransitions(document: PDFDocument, spec: TransitionSpec): void {
  const pages = document.getPages();
  const context = document.context;
  for (const number of spec.pages) {
    const page = pages[number - 1]!;
    const trans: Record<string, unknown> = { Type: 'Trans', S: TRANSITION_STYLE_NAMES[spec.style], D: Number(num(spec.duration)) };
    if (spec.direction !== 'none' && DIRECTED[spec.style]?.includes(DIRECTIONS[spec.direction])) trans.Di = DIRECTIONS[spec.direction];
    if (spec.style === 'fly') {
      trans.SS = Number(num(spec.flyScale));
      trans.B = spec.flyAreaOpaque;
    }
    page.node.set(PDFName.of('Trans'), context.obj(trans as Parameters<typeof context.obj>[0]));
    if (spec.autoScroll) page.node.set(PDFName.of('Dur'), context.obj(Number(num(spec.autoScrollTime))));
    else page.node.delete(PDFName.of('Dur'));
  }
}

/** Removes /Trans and /Dur from the selected pages. */
export function removeTransitions(document: PDFDocument, pageNumbers: readonly number[]): void {
  const pages = document.getPages();
  for (const number of pageNumbers) {
    pages[number - 1]!.node.delete(PDFName.of('Trans'));
    pages[number - 1]!.node.delete(PDFName.of('Dur'));
  }
}
