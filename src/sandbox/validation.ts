/**
 * Query parameter validation as API Platform 4 does it: a filter the collection knows, given a
 * value it cannot take (a date range bound that is no date, a numeric bound that is no number, a
 * value outside an enumeration), is answered 422 with a `ConstraintViolationList` as RFC 9457
 * problem details (`application/problem+json`), each violation with its `propertyPath` (the
 * parameter) and Symfony's constraint message and code. Unknown parameters stay silently ignored.
 */
import type { GeneratedCollection } from './data.js';
import { NUMERIC_OPERATORS, RANGE_OPERATORS } from './filters.js';

/** One violation of a `ConstraintViolationList`. */
export interface Violation {
  /** The query parameter, e.g. `updatedAt[after]`. */
  propertyPath: string;
  message: string;
  /** The Symfony constraint's error code (a UUID). */
  code: string;
}

/** Symfony's constraint messages and codes (Symfony\Component\Validator\Constraints). */
const CONSTRAINTS = {
  dateTime: { message: 'This value is not a valid datetime.', code: '1a9da513-2640-4f84-9b6a-4d99dcddc628' },
  number: { message: 'This value should be of type number.', code: 'ba785a8c-82cb-4283-967c-3cf342181b40' },
  choice: { message: 'The value you selected is not a valid choice.', code: '8e179f1b-97aa-4560-a02f-2a8b42e49df7' },
} as const;

/** A decimal number as a query value (API Platform's RangeFilter accepts these). */
const DECIMAL = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/;

/** Whether a numeric range value is valid: a decimal, or `a..b` of two for `between`. */
function numericValid(op: string, value: string): boolean {
  if (op !== 'between') return DECIMAL.test(value);
  const parts = value.split('..');
  return parts.length === 2 && parts.every((p) => DECIMAL.test(p));
}

/**
 * The violations of a request's filters on a collection, in query order; [] when every known
 * filter's value is valid.
 */
export function validateFilters(base: GeneratedCollection, params: URLSearchParams): Violation[] {
  const violations: Violation[] = [];
  const add = (propertyPath: string, constraint: { message: string; code: string }): void => {
    violations.push({ propertyPath, ...constraint });
  };
  const dates = new Set((base.dateFilters ?? []).flatMap((f) => RANGE_OPERATORS.map((op) => `${f}[${op}]`)));
  const numbers = new Map<string, string>((base.numericFilters ?? []).flatMap((f) => NUMERIC_OPERATORS.map((op) => [`${f}[${op}]`, op] as const)));
  for (const [key, value] of params) {
    const choices = base.choices?.[key];
    const op = numbers.get(key);
    if (dates.has(key) && Number.isNaN(Date.parse(value))) add(key, CONSTRAINTS.dateTime);
    else if (op !== undefined && !numericValid(op, value)) add(key, CONSTRAINTS.number);
    else if (choices !== undefined && !choices.includes(value)) add(key, CONSTRAINTS.choice);
  }
  return violations;
}

/**
 * The 422 body of violations, as API Platform 4 writes a `ValidationException` in problem+json:
 * `status`, `violations`, `detail` and `description` (one `path: message` line per violation),
 * `type` (`/validation_errors/<first code>`) and `title`.
 */
export function violationProblem(violations: readonly Violation[]): Record<string, unknown> {
  const detail = violations.map((v) => `${v.propertyPath}: ${v.message}`).join('\n');
  return {
    status: 422,
    violations,
    detail,
    description: detail,
    type: `/validation_errors/${violations[0]?.code ?? ''}`,
    title: 'An error occurred',
  };
}
