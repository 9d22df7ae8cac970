/**
 * The server's time of the run's first response, less one second (`Date` has a resolution of one
 * second, RFC 9110 §5.6.7); carried in the checkpoint, stored only once the output is in place.
 */
import type { PageStep } from '../../pagination/paginate.js';
import type { Destination } from '../files/destination.js';
import { formatFilterTime, parseSince } from './since.js';
import { saveWatermark } from './state.js';
import type { ManifestRecorder } from '../manifest/manifest.js';

export interface WatermarkOptions {
  /** Undefined: not incremental (a no-op tracker). */
  state: { path: string; key: string } | undefined;
  /** An export `--max-items` stopped leaves the state as it was. */
  maxItems: number | undefined;
  /** Local epoch ms */
  now: () => number;
  note: (line: string) => void;
  manifest?: Pick<ManifestRecorder, 'setWatermark'> | undefined;
  /**
   * A database keeps the watermark: its checkpoints carry it and it is told the one to store before
   * it finishes; `stores`: whether a complete run stores one there (then the notes name `where`).
   */
  inDestination?: { readonly stores: boolean; readonly where: string } | undefined;
}

export interface WatermarkTracker {
  /** The destination, its checkpoints carrying the pending watermark; it continues a resumed one's. */
  wrap(out: Destination): Destination;
  /** The pages, each response's `Date` observed on the way. */
  observe(steps: AsyncGenerator<PageStep, void, void>): AsyncGenerator<PageStep, void, void>;
  /**
   * After the output is in place: stores the watermark in the state file, unless `--max-items`
   * stopped the export or no response carried a `Date` (then a note says the state is unchanged).
   * @throws {OutputError} (exit 7) when the state file cannot be written; {@link UsageError} (exit 2)
   *   when it became corrupt meanwhile
   */
  commit(items: number): Promise<void>;
}

export function createWatermarkTracker(options: WatermarkOptions): WatermarkTracker {
  const { state, inDestination } = options;
  const active = state !== undefined || inDestination !== undefined;
  let earliest: number | undefined;
  /** A resumed checkpoint fixed the watermark: nothing observed changes it. */
  let fixed = false;
  const pending = (): string | undefined => (earliest === undefined ? undefined : formatFilterTime(earliest - 1000));
  const limited = (items: number): boolean => options.maxItems !== undefined && items >= options.maxItems;
  return {
    wrap(out) {
      if (!active) return out;
      if (out.resumed) {
        fixed = true;
        const stored = out.resumed.watermark;
        earliest = stored === undefined ? undefined : parseSince(stored, 'the checkpoint watermark') + 1000;
      }
      const wrapped = Object.create(out) as Destination;
      const watermark = (): { watermark?: string } => {
        const text = pending();
        return text === undefined ? {} : { watermark: text };
      };
      let items = out.resumed?.items ?? 0;
      wrapped.pageWritten = (mark) => {
        items = mark.items;
        return out.pageWritten({ ...mark, ...watermark() });
      };
      wrapped.finish = (text) => {
        const after = pending();
        if (after !== undefined && !limited(items)) {
          options.manifest?.setWatermark({ after });
          out.keepWatermark?.(after);
        }
        return out.finish(text);
      };
      return wrapped;
    },
    async *observe(steps) {
      for await (const step of steps) {
        if (active && !fixed && step.date !== undefined && (earliest === undefined || step.date < earliest)) earliest = step.date;
        yield step;
      }
    },
    async commit(items) {
      const where = state ? `the state file ${state.path}` : inDestination?.stores ? inDestination.where : undefined;
      if (where === undefined) return;
      const unchanged = `${where} is left as it was`;
      const since = pending();
      if (limited(items)) options.note(`collections: --max-items stopped the export; ${unchanged}`);
      else if (since === undefined) options.note(`collections: the server sent no Date header; ${unchanged}`);
      else if (state) await saveWatermark(state.path, state.key, since, options.now());
    },
  };
}
