import { describe, expect, it } from 'vitest';
import { pageNumberOf, withPage } from '../../../src/pagination/offset.js';

describe('offset helpers', () => {
  it.each([
    ['http://h/e?page=3', 3],
    ['http://h/e?itemsPerPage=5&page=12', 12],
    ['http://h/e', undefined],
    ['http://h/e?page=0', undefined],
    ['http://h/e?page=x', undefined],
  ])('pageNumberOf(%s) = %j', (url, expected) => {
    expect(pageNumberOf(new URL(url))).toBe(expected);
  });

  it.each([
    [
      'replaces page, keeps other parameters byte for byte',
      'http://h/e?issuedAt[after]=2024-01-01&page=1&q=a+b',
      5,
      '?issuedAt[after]=2024-01-01&page=5&q=a+b',
    ],
    ['adds page when absent', 'http://h/e?itemsPerPage=1000', 2, '?itemsPerPage=1000&page=2'],
    ['no query at all', 'http://h/e', 2, '?page=2'],
    ['does not touch a parameter that only ends in page', 'http://h/e?perpage=9&page=1', 3, '?perpage=9&page=3'],
  ])('withPage: %s', (_n, url, page, search) => {
    expect(withPage(new URL(url), page).search).toBe(search);
  });
});
