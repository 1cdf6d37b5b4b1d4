/** What scout and ledger-bot write to `brain.db`, step by step (one step = one sync). */
import { DEMO_FACTS } from './facts';

export type BrainOp =
  | { op: 'insert'; key: string; content: string; category?: string; importance?: number; session?: string }
  | { op: 'update'; key: string; content: string }
  | { op: 'delete'; key: string };

export interface ZeroclawStep {
  /** Scenario day (0 … 27). */
  day: number;
  ops: readonly BrainOp[];
}

const ins = (key: string, content: string, category = 'core', importance = 0.5, session?: string): BrainOp =>
  ({ op: 'insert', key, content, category, importance, ...(session ? { session } : {}) });
const upd = (key: string, content: string): BrainOp => ({ op: 'update', key, content });
const del = (key: string): BrainOp => ({ op: 'delete', key });

const chat = (n: number, text: string): BrainOp => ins(`user_msg_${n}`, text, 'conversation', 0.2, `scout-session-${Math.ceil(n / 3)}`);

export const SCOUT_SCRIPT: readonly ZeroclawStep[] = [
  { day: 0, ops: [
    ins('mission', 'Scout the web for retrieval and agent-memory work; summarise weekly for the user.', 'core', 0.9),
    ins('vendor_api_limits', `acme-data search API: ${DEMO_FACTS.scoutRateLimit}, burst 10, key in the vault.`, 'core', 0.8),
    ins('procedure_dedupe', 'Dedupe findings by canonical URL, then by DOI, before scoring.', 'procedure', 0.7),
    ins('source_arxiv', 'arXiv: use the listing RSS for daily scans; the API only for backfills (3 s between calls).'),
    chat(1, 'user: can you keep an eye on papers about memory consolidation?'),
  ] },
  { day: 2, ops: [ins('finding_consolidation', 'Found 3 papers on memory consolidation for agents; best one compares episodic vs semantic stores.', 'episodic'), chat(2, 'user: send me the best one only')] },
  { day: 4, ops: [upd('source_arxiv', 'arXiv: listing RSS for daily scans; API for backfills only, 3 s between calls, max 2000 results per query.')] },
  { day: 5, ops: [ins('source_semantic_scholar', 'Semantic Scholar graph API: free tier, 1 req/s; citations endpoint is the useful one.'), chat(3, 'user: also watch Semantic Scholar')] },
  { day: 7, ops: [ins('weekly_summary_1', 'Week 1: 7 findings, 2 worth reading; consolidation paper sent to the user.', 'episodic', 0.6), del('user_msg_1')] },
  { day: 9, ops: [upd('vendor_api_limits', 'acme-data search API: rate limit 120 req/min after the plan upgrade, burst 20, key in the vault.')] },
  { day: 11, ops: [ins('finding_benchmarks', 'New long-horizon memory benchmark released; 40 tasks, agents forget after ~30 turns.', 'episodic'), chat(4, 'user: is that benchmark any good?')] },
  { day: 12, ops: [upd('finding_benchmarks', 'New long-horizon memory benchmark released; 40 tasks, agents forget after ~30 turns. Verdict: tasks are synthetic, useful only as a smoke test.'), del('user_msg_2')] },
  { day: 14, ops: [ins('weekly_summary_2', 'Week 2: 5 findings; benchmark judged synthetic; Semantic Scholar added as a source.', 'episodic', 0.6)] },
  { day: 16, ops: [ins('procedure_scoring', 'Score = novelty × relevance; drop anything without code or data.', 'procedure', 0.7), del('source_semantic_scholar')] },
  { day: 18, ops: [upd('vendor_api_limits', 'acme-data search API: rate limit 120 req/min, burst 20; the vendor now returns 429 with Retry-After — honour it.'), chat(5, 'user: the acme key expires in May, remind me')] },
  { day: 20, ops: [ins('reminder_acme_key', 'Remind the user: acme-data key expires at the end of May.', 'core', 0.9)] },
  { day: 22, ops: [ins('weekly_summary_3', 'Week 3: 4 findings; scoring procedure in place; nothing urgent.', 'episodic', 0.6), del('user_msg_3'), del('user_msg_4')] },
  { day: 25, ops: [upd('mission', 'Scout the web for retrieval and agent-memory work; summarise weekly; flag anything with code the same day.')] },
  { day: 27, ops: [ins('finding_tiered_memory', 'Today: a write-up of a tiered hot/warm/cold memory layout for single-user agents, with TTL archival.', 'episodic', 0.7)] },
];

export const LEDGER_BOT_SCRIPT: readonly ZeroclawStep[] = [
  { day: 1, ops: [
    ins('role', 'Keep the books for the homelab and side projects: invoices in, monthly close out.', 'core', 0.9),
    ins('payment_terms_acme', 'acme-data invoices: net-30, EUR, paid by card.', 'core', 0.8),
    ins('procedure_month_close', 'Month close: match invoices to bank lines, flag anything over 100 EUR, export CSV.', 'procedure', 0.8),
    ins('invoice_hosting_apr', 'Invoice INV-0412 from the VPS host: 48.20 EUR, paid.', 'episodic'),
  ] },
  { day: 2, ops: [ins('invoice_domain', 'Invoice for the domain renewal: 14.00 EUR, paid.', 'episodic')] },
  { day: 3, ops: [ins('invoice_domain_dup', 'Invoice for the domain renewal: 14.00 EUR, paid (imported twice?).', 'episodic', 0.2)] },
  { day: 6, ops: [del('invoice_domain_dup'), ins('note_duplicates', 'The mail importer duplicates forwarded invoices; dedupe by invoice number.', 'core', 0.7)] },
  { day: 8, ops: [ins('invoice_b2', 'Backblaze B2 storage: 3.85 EUR, paid.', 'episodic')] },
  { day: 10, ops: [upd('payment_terms_acme', 'acme-data invoices: net-45 from Q2 (was net-30), EUR, paid by card.')] },
  { day: 11, ops: [ins('invoice_acme_q2', 'acme-data Q2 invoice: 240.00 EUR, due in 45 days.', 'episodic', 0.7)] },
  { day: 13, ops: [upd('procedure_month_close', 'Month close: match invoices to bank lines, dedupe by invoice number, flag anything over 100 EUR, export CSV.')] },
  { day: 15, ops: [ins('budget_homelab', 'Homelab budget: 60 EUR/month; April so far 66.05 EUR (over by 6.05).', 'core', 0.6)] },
  { day: 17, ops: [upd('budget_homelab', 'Homelab budget: 60 EUR/month; April closed at 66.05 EUR, the gateway box is a one-off outside the budget.')] },
  { day: 19, ops: [ins('invoice_gateway_box', 'New gateway box: 189.00 EUR one-off, receipt filed under hardware.', 'episodic', 0.6)] },
  { day: 21, ops: [ins('month_close_apr', 'April closed: 11 invoices, 1 duplicate removed, CSV exported.', 'episodic', 0.7), del('invoice_domain')] },
  { day: 23, ops: [upd('payment_terms_acme', 'acme-data invoices: net-45, EUR, paid by bank transfer from May (card fees).')] },
  { day: 26, ops: [ins('invoice_hosting_may', 'Invoice INV-0512 from the VPS host: 48.20 EUR, paid.', 'episodic')] },
  { day: 27, ops: [ins('reminder_acme_due', 'acme-data Q2 invoice falls due this month; transfer scheduled.', 'core', 0.8)] },
];
