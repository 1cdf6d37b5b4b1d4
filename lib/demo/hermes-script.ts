/** What hermes-desk goes through: curated `§` notes, USER.md, and chat sessions in `state.db`. */
import { LAST_DAY_SYNC_HOUR } from './clock';
import { DEMO_FACTS } from './facts';

export interface ChatMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool?: string;
}

export type SessionOp =
  | { op: 'start'; key: string; source: 'cli' | 'telegram' | 'discord'; title: string; messages: readonly ChatMessage[]; end: boolean }
  | { op: 'continue'; key: string; messages: readonly ChatMessage[] };

export interface HermesStep {
  day: number;
  hour: number;
  /** The curated entries after this step, in file order (absent: unchanged). */
  curated?: readonly string[];
  user?: string;
  sessions?: readonly SessionOp[];
}

const INVOICES = 'The user runs a two-person consultancy; invoices go out on the 1st of each month.';
const TELEGRAM = 'Prefer short replies on Telegram; anything longer than five lines goes to email.';
const STANDUP = 'Team stand-up at 09:00 on weekdays (Europe/Berlin).';
const STANDUP_MOVED = `Team ${DEMO_FACTS.hermesStandup} on weekdays (Europe/Berlin), since the third week.`;
const FRIDAYS = 'Never book meetings on Friday afternoons.';
const DRIVE = "Contracts live in the shared drive folder 'Clients/2026'; drafts stay local.";
const ACCOUNTANT = 'Accountant: Maria at Becker & Partner. Send receipts by the 5th.';

export const HERMES_USER_V1 = '# USER.md\nName: Jo\nTimezone: Europe/Berlin\nWork: consultancy, two people\n';
export const HERMES_USER_V2 = '# USER.md\nName: Jo\nTimezone: Europe/Berlin\nWork: consultancy, two people (hiring a third in summer)\nLanguages: English, German\n';
export const HERMES_SOUL = '# SOUL.md\nA calm front desk: scheduling, email triage, invoices. Ask before sending anything external.\n';

const u = (content: string): ChatMessage => ({ role: 'user', content });
const a = (content: string): ChatMessage => ({ role: 'assistant', content });

export const HERMES_SCRIPT: readonly HermesStep[] = [
  { day: 0, hour: 9, curated: [INVOICES, TELEGRAM, STANDUP], user: HERMES_USER_V1, sessions: [
    { op: 'start', key: 's1', source: 'cli', title: 'Set up the desk assistant', end: true, messages: [
      u('Hi, you will handle my calendar and invoices.'), a('Understood. I will keep notes in MEMORY.md and ask before sending anything.'),
      u('Invoices go out on the 1st.'), a('Noted as a standing rule.'),
    ] },
  ] },
  { day: 3, hour: 14, sessions: [
    { op: 'start', key: 's2', source: 'telegram', title: 'Invoice reminders', end: true, messages: [
      u('remind me about unpaid invoices on Mondays'), a('Will do: Monday 09:00 reminder with anything older than 14 days.'),
    ] },
  ] },
  { day: 5, hour: 10, curated: [INVOICES, TELEGRAM, STANDUP, FRIDAYS], sessions: [
    { op: 'start', key: 's3', source: 'cli', title: 'Friday meetings', end: true, messages: [
      u('stop putting meetings on Friday afternoons'), a('Added as a rule; I moved next Friday\'s 15:00 call to Thursday.'),
    ] },
  ] },
  { day: 8, hour: 16, sessions: [
    { op: 'start', key: 's4', source: 'telegram', title: 'Client call prep', end: true, messages: [
      u('prep me for the Northwind call'), a('Three open items: the Q2 scope, the late invoice, the NDA renewal.'),
      { role: 'tool', content: 'calendar.lookup Northwind → Thu 11:00', tool: 'calendar' }, a('The call is Thursday 11:00.'),
    ] },
  ] },
  { day: 10, hour: 11, curated: [INVOICES, TELEGRAM, STANDUP, FRIDAYS, DRIVE] },
  { day: 13, hour: 9, curated: [FRIDAYS, INVOICES, TELEGRAM, STANDUP, DRIVE], sessions: [
    { op: 'start', key: 's5', source: 'discord', title: 'Team channel digest', end: true, messages: [
      u('summarise the team channel'), a('Two threads: the website copy (waiting on you) and the offsite date (leaning June 12).'),
    ] },
  ] },
  { day: 15, hour: 17, user: HERMES_USER_V2, sessions: [
    { op: 'start', key: 's6', source: 'cli', title: 'Hiring notes', end: true, messages: [
      u('we are hiring a third person in summer'), a('Noted in USER.md. Want a job-post draft?'), u('later'),
    ] },
  ] },
  { day: 17, hour: 9, curated: [FRIDAYS, INVOICES, TELEGRAM, STANDUP_MOVED, DRIVE] },
  { day: 20, hour: 10, sessions: [
    { op: 'start', key: 's7', source: 'cli', title: 'Quarterly planning', end: false, messages: [
      u('let us plan Q3'), a('Starting a planning thread. First: which clients continue into Q3?'),
    ] },
  ] },
  { day: 22, hour: 15, curated: [FRIDAYS, INVOICES, TELEGRAM, STANDUP_MOVED, DRIVE, ACCOUNTANT], sessions: [
    { op: 'continue', key: 's7', messages: [u('Northwind and Contoso continue, Fabrikam ends in June'), a('Noted. Capacity frees up from July.')] },
  ] },
  { day: 25, hour: 11, sessions: [
    { op: 'continue', key: 's7', messages: [u('pencil in the offsite for June 12'), a('Pencilled in; no Friday afternoon conflicts.')] },
    { op: 'start', key: 's8', source: 'telegram', title: 'Receipts for Maria', end: true, messages: [
      u('send Maria the April receipts'), a('Drafted the email with 11 receipts attached; waiting for your OK.'), u('ok send'),
    ] },
  ] },
  { day: 27, hour: LAST_DAY_SYNC_HOUR - 1, sessions: [
    { op: 'continue', key: 's7', messages: [u('morning — where were we on Q3?'), a('Clients settled, offsite pencilled in. Next: the hiring timeline.')] },
  ] },
];
