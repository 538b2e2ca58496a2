import { isPlainObject } from './plain.ts';
import type { AgentContext } from './types.ts';
import type { InterceptionPoint } from './vocabulary.ts';

const ANONYMOUS = '\u0000anonymous';

/**
 * §3.1 ordering within one session, §6.1a session boundaries and §6.2 block
 * propagation. `check` runs synchronously when an emission starts (so
 * concurrent emissions see each other's claims); `settle` runs when its
 * combined verdict is known. A violation fails the emission closed.
 */
export class SessionOrdering {
  private phase: 'new' | 'open' | 'blocked' | 'closed' = 'new';
  private turnOpen = false;
  private readonly modelCalls = new Map<string, number>();
  private readonly toolCalls = new Map<string, 'pending' | 'open'>();

  get startupBlocked(): boolean {
    return this.phase === 'blocked';
  }

  get closed(): boolean {
    return this.phase === 'closed';
  }

  /** A violation message, or null after claiming whatever the emission needs. */
  check(point: InterceptionPoint, ctx: AgentContext): string | null {
    if (this.phase === 'closed') return '§3.1: the session is already shut down';
    if (point === 'agent_startup') {
      if (this.phase !== 'new') return '§3.1: agent_startup may be emitted once';
      this.phase = 'open';
      return null;
    }
    if (this.phase === 'new') return '§3.1: agent_startup must precede every other point';
    if (point === 'agent_shutdown') {
      const blocked = this.phase === 'blocked';
      this.phase = 'closed';
      const reason = isPlainObject(ctx.summary) ? ctx.summary.reason : undefined;
      if (blocked && reason !== 'error')
        return '§6.1a: after a denied startup, summary.reason must be error';
      return null;
    }
    if (this.phase === 'blocked')
      return '§6.1a: agent_startup was denied; only agent_shutdown may follow';
    switch (point) {
      case 'input':
        return null;
      case 'pre_model_call':
      case 'output':
        return this.turnOpen ? null : `§3.1: ${point} without an input that began the turn`;
      case 'pre_tool_call': {
        if (!this.turnOpen) return '§3.1: pre_tool_call without an input that began the turn';
        const id = toolCallId(ctx);
        if (this.toolCalls.has(id)) return '§12.2: tool_call.id is already in flight';
        this.toolCalls.set(id, 'pending');
        return null;
      }
      case 'post_model_call': {
        const key = typeof ctx.request_id === 'string' ? ctx.request_id : ANONYMOUS;
        const open = this.modelCalls.get(key) ?? 0;
        if (open === 0) return '§3.1/§6.2: post_model_call without a permitted pre_model_call';
        this.modelCalls.set(key, open - 1);
        return null;
      }
      case 'post_tool_call': {
        const id = toolCallId(ctx);
        if (this.toolCalls.get(id) !== 'open') {
          return '§3.1/§6.2: post_tool_call without a permitted pre_tool_call for this tool_call.id';
        }
        this.toolCalls.delete(id);
        return null;
      }
    }
    return null;
  }

  /** Record what the combined verdict means for what may follow. */
  settle(point: InterceptionPoint, ctx: AgentContext, proceed: boolean, violated: boolean): void {
    switch (point) {
      case 'agent_startup':
        if (!proceed || violated) this.phase = 'blocked';
        return;
      case 'input':
        if (proceed && !violated) this.turnOpen = true;
        return;
      case 'output':
        if (!violated) this.turnOpen = false;
        return;
      case 'pre_model_call': {
        if (!proceed || violated) return;
        const key = typeof ctx.request_id === 'string' ? ctx.request_id : ANONYMOUS;
        this.modelCalls.set(key, (this.modelCalls.get(key) ?? 0) + 1);
        return;
      }
      case 'pre_tool_call': {
        if (violated) return;
        const id = toolCallId(ctx);
        if (proceed) this.toolCalls.set(id, 'open');
        else this.toolCalls.delete(id);
        return;
      }
    }
  }
}

function toolCallId(ctx: AgentContext): string {
  const tc = ctx.tool_call;
  return isPlainObject(tc) && typeof tc.id === 'string' ? tc.id : ANONYMOUS;
}
