import { fromMinor, type Ctx } from '../../core/sdk';
import { messageFirstsSql } from '../email/public';
import { customerFigureSql } from '../orders/public';
import { storeSettings } from '../store/public';
import { campaignRow } from './store';

const pct = (n: number, of: number) => (of ? Math.round((n / of) * 1000) / 10 : 0);

// The window after a recipient's first open or click ($4 days), inclusive.
const WINDOW = { customerId: 'r.customer_id', store: '$1', currency: '$3', since: 'g.at', until: 'g.at + make_interval(days => $4::int)' };

/**
 * A campaign's figures, read when asked: each recipient's first delivery, open, click, bounce and
 * unsubscribe from email's events (email's messageFirstsSql), and the counted orders of those who
 * opened or clicked within the window (orders' customerFigureSql). A click counts as an open too:
 * a reader who blocks images still opened the message to click it.
 */
export async function getMetrics(ctx: Ctx, id: string) {
  const c = await campaignRow(ctx, id);
  const currency = (await storeSettings(ctx.db, ctx.store.id)).currency;
  const [m] = await ctx.db.query(
    `SELECT count(*)::int AS recipients,
       count(*) FILTER (WHERE r.status = 'sent')::int AS sent,
       count(*) FILTER (WHERE r.status = 'skipped')::int AS skipped,
       count(ev.delivered_at)::int AS delivered,
       count(g.at)::int AS opened,
       count(ev.clicked_at)::int AS clicked,
       count(ev.bounced_at)::int AS bounced,
       count(ev.unsubscribed_at)::int AS unsubscribed,
       coalesce(sum(cv.orders), 0)::int AS conversions,
       coalesce(sum(cv.revenue), 0)::bigint AS revenue
     FROM campaign_recipients r
     LEFT JOIN LATERAL ${messageFirstsSql('r.message_id')} ev ON true
     LEFT JOIN LATERAL (SELECT least(ev.opened_at, ev.clicked_at) AS at) g ON true
     LEFT JOIN LATERAL (SELECT ${customerFigureSql('orders_count', WINDOW)} AS orders, ${customerFigureSql('total_spent', WINDOW)} AS revenue
                        WHERE g.at IS NOT NULL) cv ON true
     WHERE r.store_id = $1 AND r.campaign_id = $2`,
    [ctx.store.id, c.id, currency, c.conversion_window_days],
  );
  const n = (k: string) => Number(m[k]);
  return {
    object: 'campaign_metrics' as const,
    campaign_id: c.id,
    status: c.status,
    recipients: n('recipients'),
    sent: n('sent'),
    skipped: n('skipped'),
    delivered: n('delivered'),
    opened: n('opened'),
    clicked: n('clicked'),
    bounced: n('bounced'),
    unsubscribed: n('unsubscribed'),
    conversions: n('conversions'),
    conversion_revenue: fromMinor(m.revenue, currency),
    currency,
    rates: {
      delivery: pct(n('delivered'), n('sent')),
      open: pct(n('opened'), n('delivered')),
      click: pct(n('clicked'), n('delivered')),
      conversion: pct(n('conversions'), n('delivered')),
    },
  };
}
