/**
 * Fault specs: checking a rule, and parsing the `--faults` text (JSON, or the compact
 * `kind key=value …; kind …` form).
 */
import { UsageError } from '../errors.js';
import { FAULT_KINDS, type FaultConfig, type FaultRule } from './fault-types.js';

const NUMBERED = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * Checks a rule's kind and parameters.
 * @throws {UsageError} for an unknown kind or an out-of-range parameter
 */
export function validateRule(rule: FaultRule): void {
  if (!(FAULT_KINDS as readonly string[]).includes(rule.kind)) {
    throw new UsageError(`unknown fault '${rule.kind}' (known: ${FAULT_KINDS.join(', ')})`);
  }
  if (rule.probability !== undefined && !(rule.probability >= 0 && rule.probability <= 1)) {
    throw new UsageError(`fault ${rule.kind}: probability must be between 0 and 1`);
  }
  if (rule.kind === 'status' && rule.status !== undefined && !(rule.status >= 500 && rule.status <= 599)) {
    throw new UsageError(`fault status: status must be a 5xx code`);
  }
  if ((rule.kind === 'foreign-next' || rule.kind === 'redirect') && rule.url !== undefined) {
    try {
      new URL(rule.url);
    } catch {
      throw new UsageError(`fault ${rule.kind}: url must be an absolute URL`);
    }
  }
  if (rule.kind === 'foreign-next' && rule.link !== undefined && typeof rule.link !== 'string') {
    throw new UsageError('fault foreign-next: link must be a string');
  }
  if (
    (rule.kind === 'foreign-next' || rule.kind === 'redirect') &&
    rule.url === undefined &&
    !(rule.kind === 'foreign-next' && rule.link !== undefined)
  ) {
    throw new UsageError(`fault ${rule.kind} needs url=<absolute URL>${rule.kind === 'foreign-next' ? ' or link=<raw link>' : ''}`);
  }
}

const ALIASES: Record<string, keyof FaultRule> = { p: 'probability', request: 'requests', page: 'pages' };

function parseValue(key: string, text: string): unknown {
  if (key === 'requests' || key === 'pages') {
    const range = /^(\d*)-(\d*)$/.exec(text);
    if (range && key === 'requests') {
      return { ...(range[1] ? { from: Number(range[1]) } : {}), ...(range[2] ? { to: Number(range[2]) } : {}) };
    }
    const list = text.split(',').map(Number);
    if (list.some((n) => !Number.isInteger(n))) throw new UsageError(`fault spec: bad ${key} '${text}'`);
    return list.length === 1 ? list[0] : list;
  }
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

/**
 * Parses a fault spec: JSON (a {@link FaultConfig} or an array of rules), or the compact form
 * `kind key=value …; kind …` where `p` is short for `probability`, `requests=3-5` is a range,
 * `pages=2,4` a list, and a lone `seed=N` sets the seed. Example:
 * `status status=503 p=0.2; reset-mid-body requests=5; clock-offset offsetMs=-600000`.
 * @throws {UsageError} for bad JSON, an unknown kind or a malformed pair
 */
export function parseFaultSpec(text: string): FaultConfig {
  const trimmed = text.trim();
  if (trimmed === '') return { rules: [] };
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (err) {
      throw new UsageError(`fault spec is not valid JSON: ${(err as Error).message}`);
    }
    const config: FaultConfig = Array.isArray(parsed) ? { rules: parsed as FaultRule[] } : (parsed as FaultConfig);
    if (!Array.isArray(config.rules)) throw new UsageError('fault spec JSON needs a "rules" array');
    if (config.seed !== undefined && !NUMBERED(config.seed)) throw new UsageError('fault spec: seed must be a number');
    for (const r of config.rules) validateRule(r);
    return config;
  }
  const config: FaultConfig = { rules: [] };
  for (const part of trimmed.split(';')) {
    const tokens = part.trim().split(/\s+/).filter(Boolean);
    if (tokens.length === 0) continue;
    if (tokens.length === 1 && tokens[0]!.startsWith('seed=')) {
      const seed = Number(tokens[0]!.slice(5));
      if (!Number.isInteger(seed)) throw new UsageError(`fault spec: bad seed '${tokens[0]}'`);
      config.seed = seed;
      continue;
    }
    const rule: Record<string, unknown> = { kind: tokens[0] };
    for (const token of tokens.slice(1)) {
      const eq = token.indexOf('=');
      if (eq <= 0) throw new UsageError(`fault spec: expected key=value, got '${token}'`);
      const rawKey = token.slice(0, eq);
      const key = ALIASES[rawKey] ?? rawKey;
      rule[key] = parseValue(key, token.slice(eq + 1));
    }
    validateRule(rule as unknown as FaultRule);
    config.rules.push(rule as unknown as FaultRule);
  }
  return config;
}
