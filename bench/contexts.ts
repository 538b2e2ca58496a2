/**
 * Realistic contexts for the engine benchmarks: `pre_model_call`
 * conversations of mixed text and structured tool messages.
 */
import { type AgentContext, buildContext, type Message } from '../lib/hooks';

const PROSE = 'lorem ipsum dolor ';
/** Multilingual prose: 2-, 3- and 4-byte UTF-8 characters among ASCII. */
const MIXED = 'crème brûlée, 東京の天気 😀 ';

/** A pre_model_call context whose JSON text is about `size` UTF-16 units. */
export function contextOf(size: number, opts: { multilingual?: boolean } = {}): AgentContext {
  const prose = opts.multilingual ? MIXED : PROSE;
  const messages: Message[] = [];
  const base = {
    timestamp: '2026-06-19T14:03:11.123Z',
    sequence: 3,
    agent: { id: 'bench-agent', framework: 'bench' },
    session: { id: 'bench-session' },
  };
  let i = 0;
  const make = () => buildContext('pre_model_call', base, { model: { id: 'm' }, messages });
  while (JSON.stringify(make()).length < size) {
    messages.push(
      i % 3 === 2
        ? {
            role: 'tool',
            content: {
              tool: 'search',
              hits: [{ id: i, title: `result ${i}`, score: i / 7 }],
              ok: true,
            },
          }
        : {
            role: i % 2 ? 'assistant' : 'user',
            content: `message ${i}: ${prose.repeat(3)}`,
          },
    );
    i++;
  }
  return make();
}

export function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export const round2 = (x: number) => Math.round(x * 100) / 100;
