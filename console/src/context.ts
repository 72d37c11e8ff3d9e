import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session, StoreRef } from './api';

/** What every page may read: who is signed in, the store, what the role allows, the live inbox. */
export interface ConsoleCtx {
  session: Session;
  store: StoreRef;
  role: string;
  scopes: string[];
  /** Whether the user's token holds this scope (the UI shows no button the API would refuse). */
  can: (scope: string) => boolean;
  /** Owners, admins and approvers decide held tool calls (SPEC 3.1). */
  canApprove: boolean;
  /** Calls waiting for approval now, kept live by the executions stream. */
  pending: Execution[];
  /** Whether the stream is connected. */
  live: boolean;
  /** The part of the address after the page id: `#/products/<arg>`. */
  arg?: string;
  go: (path: string) => void;
}

export interface Execution {
  id: string;
  tool: string;
  action: string;
  agent_id: string | null;
  agent_name: string | null;
  source: string;
  caller?: { type: 'api_key' | 'user'; id: string } | null;
  status: string;
  duration_ms: number | null;
  input: unknown;
  output: unknown;
  approval: Record<string, any> | null;
  created_at: string;
  completed_at: string | null;
}

export const Ctx = createContext<ConsoleCtx>(null as unknown as ConsoleCtx);
export const useConsole = () => useContext(Ctx);
