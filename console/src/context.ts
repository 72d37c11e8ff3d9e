import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session, StoreRef } from './api';
import type { Operation, Resource } from './api-paths';

/** What every page may read: who is signed in, the store, what the role allows, the live inbox. */
export interface ConsoleCtx {
  session: Session;
  store: StoreRef;
  role: string;
  scopes: string[];
  /**
   * Whether the user may call this operation (`products.create_product`), as the console token's
   * answer lists them: the UI shows no button the API would refuse, and names no scope or role.
   */
  may: (operation: Operation) => boolean;
  /** The roles this user may give to members (none when they manage no members). */
  assignableRoles: string[];
  /** Calls waiting for approval now, kept live by the executions stream. */
  pending: Execution[];
  /** Whether the stream is connected. */
  live: boolean;
  /** The part of the address after the page id: `#/products/<arg>`. */
  arg?: string;
  go: (path: string) => void;
}

/** One tool call, as the audit log answers it. */
export type Execution = Resource<'/tool-executions/{id}'>;

export const Ctx = createContext<ConsoleCtx>(null as unknown as ConsoleCtx);
export const useConsole = () => useContext(Ctx);
