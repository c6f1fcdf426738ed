/**
 * The page as first sent: the jobs on record and the model menu go into the
 * HTML itself (a JSON data block, which the CSP allows since it never runs),
 * so the first paint shows them instead of "No jobs yet" until the live feed
 * connects. The menu comes from models.yaml alone; where each entry is live
 * arrives with the first probe.
 */
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { menuEntryFacts, type MenuListing } from '../registry/model-list.js';
import type { Config } from '../config/schema.js';
import { redactDeep } from '../secrets/redact.js';
import type { JobListRow } from '../jobs/view/job-facts.js';

/** index.html holds this where the data block goes. */
export const FIRST_PAINT_MARK = '<!-- first-paint -->';

export interface FirstPaint {
  readonly jobs: readonly JobListRow[];
  /** `live_on` is left out: not probed yet. */
  readonly menu: readonly Omit<MenuListing, 'live_on'>[];
  readonly defaultModel: string | undefined;
}

export async function firstPaint(rows: () => Promise<readonly JobListRow[]>, loadConfig: () => Promise<Config>, log: Logger): Promise<FirstPaint> {
  const [jobs, config] = await Promise.all([
    rows(),
    loadConfig().catch((err: unknown) => {
      // The endpoints section shows the config error with the first probe; the page still opens.
      log.warn('dashboard: no menu for the first paint: %s', errorMessage(err));
      return undefined;
    }),
  ]);
  return { jobs, menu: config?.models.map(menuEntryFacts) ?? [], defaultModel: config?.defaults.model };
}

/** JSON that cannot end the script element or open a comment in it, whatever the task text says. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(redactDeep(value)).replace(/[<>&]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function pageWithFirstPaint(template: Buffer, data: FirstPaint): Buffer {
  const html = template.toString('utf8');
  const at = html.indexOf(FIRST_PAINT_MARK);
  if (at < 0) throw new Error(`index.html lacks ${FIRST_PAINT_MARK}`);
  const block = `<script id="first-paint" type="application/json">${scriptSafeJson(data)}</script>`;
  return Buffer.from(html.slice(0, at) + block + html.slice(at + FIRST_PAINT_MARK.length), 'utf8');
}
