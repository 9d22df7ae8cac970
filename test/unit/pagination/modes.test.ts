/**
 * The page reader and the mode reader on pages as the real service and API Platform 4.3.15 wrote
 * them (test/fixtures/real-pages.ts): the scan (pagination/page-scan.ts) of the text and of its
 * bytes, `JSON.parse`'s reading (pagination/hydra.ts `parsePageText`) and the mode the links show
 * (pagination/modes.ts `modeOfPage`) agree with what each page holds.
 */
import { describe, expect, it } from 'vitest';
import { parsePageText } from '../../../src/pagination/hydra.js';
import { isCursorOnlyRefusal, modeOfPage } from '../../../src/pagination/modes.js';
import { scanPageText } from '../../../src/pagination/page-scan.js';
import { HttpError } from '../../../src/errors.js';
import { REAL_PAGES } from '../../fixtures/real-pages.js';

const ORIGIN = 'https://api.example.com';
const idsOf = (values: readonly unknown[]): string[] => values.map((v) => (v as { id: string }).id);

describe.each(REAL_PAGES)('$name', (p) => {
  it('the scan reads its members, total and view, from text and from bytes', () => {
    for (const bytes of [false, true]) {
      const text = bytes ? Buffer.from(p.text, 'utf8').toString('latin1') : p.text;
      const page = scanPageText(text, bytes)!;
      expect(page).toBeDefined();
      expect(page.members.length).toBe(p.ids.length);
      expect(idsOf(page.members.values())).toEqual(p.ids);
      expect(page.totalItems).toBe(p.totalItems);
      expect(page.view).toEqual(p.view);
    }
  });

  it('JSON.parse reads the same page', () => {
    const page = parsePageText(p.text);
    expect(idsOf(page.members)).toEqual(p.ids);
    expect(page.totalItems).toBe(p.totalItems);
    expect(page.view).toEqual(p.view);
  });

  it(`its links show the mode: ${String(p.mode)}`, () => {
    expect(modeOfPage(scanPageText(p.text)!, new URL(p.url, ORIGIN))).toBe(p.mode);
  });
});

describe('modeOfPage', () => {
  const url = new URL('/invoices?itemsPerPage=2', ORIGIN);
  it.each([
    ['a next link carrying a page number', { next: '/invoices?itemsPerPage=2&page=2' }, 'offset'],
    ['a previous link carrying a page number only', { id: '/invoices?page=3', previous: '/invoices?page=2' }, 'offset'],
    ['a next link with id[gt], raw', { next: '/invoices?id[gt]=7' }, 'cursor'],
    ['a previous link with a cursor (the last cursor page)', { previous: '/invoices?id%5Bgt%5D=7' }, 'cursor'],
    ['a next link with another cursor field', { next: '/invoices?createdAt%5Blt%5D=2024-01-01' }, 'cursor'],
    ['no link but the page itself', { id: '/invoices?itemsPerPage=2' }, undefined],
    ['a next link with neither page nor cursor', { next: '/invoices?offset=2' }, undefined],
    ['a next link that is no URL', { next: 'http://[' }, undefined],
  ])('%s → %s', (_name, view, mode) => {
    expect(modeOfPage({ view }, url)).toBe(mode);
  });

  it('a range filter the page was asked with, kept in its links, is no cursor', () => {
    const filtered = new URL('/invoices?total[lt]=5&itemsPerPage=2', ORIGIN);
    expect(modeOfPage({ view: { next: '/invoices?total%5Blt%5D=5&itemsPerPage=2&offset=2' } }, filtered)).toBeUndefined();
    expect(modeOfPage({ view: { next: '/invoices?total%5Blt%5D=5&itemsPerPage=2&id%5Blt%5D=9' } }, filtered)).toBe('cursor');
  });
});

describe('isCursorOnlyRefusal', () => {
  const error = (status: number, serverMessage?: string): HttpError =>
    new HttpError({ method: 'GET', path: '/x', status, ...(serverMessage === undefined ? {} : { serverMessage }) });
  it.each([
    [error(400, 'Only cursor pagination is available for this endpoint.'), true],
    [error(400, 'Cursor pagination only'), true],
    [error(400, 'itemsPerPage must be an integer between 1 and 1000'), false],
    [error(400), false],
    [error(422, 'Only cursor pagination is available for this endpoint.'), false],
    [new Error('Only cursor pagination is available for this endpoint.'), false],
  ])('%s → %s', (err, refusal) => {
    expect(isCursorOnlyRefusal(err)).toBe(refusal);
  });
});
