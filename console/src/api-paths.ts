/**
 * The store's REST API as types, read from the generated console/src/api-types.ts: a page writes
 * the path it calls (`/products/${id}`) and gets the answer's type, the body's and the query's, so
 * it declares no resource shape of its own. Types only: nothing here reaches the bundle.
 */
import type { paths } from './api-types';

export type { Operation } from './api-types';

type StorePrefix = '/v1/stores/{storeId}';

/** The store's routes, relative to the store as the console writes them: `/products/{id}`. */
export type StoreRoutes = { [K in keyof paths as K extends `${StorePrefix}${infer R}` ? R : never]: paths[K] };
export type Route = keyof StoreRoutes & string;
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `/products/{id}` -> `/products/${string}`: what a path to that route looks like. */
type Pattern<S extends string> = S extends `${infer A}{${string}}${infer B}` ? `${A}${string}${Pattern<B>}` : S;

/** The routes that take `method`. */
type RoutesOf<M extends Method> = { [R in Route]: Lowercase<M> extends keyof StoreRoutes[R] ? R : never }[Route];

/** Every path a page may write for `method` (a query string may follow). */
export type PathOf<M extends Method> = Pattern<RoutesOf<M>> | `${Pattern<RoutesOf<M>>}?${string}`;

type WithoutQuery<P extends string> = P extends `${infer B}?${string}` ? B : P;

/**
 * The route a written path calls: the one whose pattern is the path's own (`/products/${string}`
 * is `/products/{id}`, not `/products/bulk`; `/products/bulk` is that route).
 */
export type RouteOf<P extends string> = P extends unknown
  ? { [R in Route]: WithoutQuery<P> extends Pattern<R> ? (Pattern<R> extends WithoutQuery<P> ? R : never) : never }[Route]
  : never;

type OperationAt<M extends Method, R> = R extends Route ? (Lowercase<M> extends keyof StoreRoutes[R] ? StoreRoutes[R][Lowercase<M>] : never) : never;

type Json<C> = C extends { content: { 'application/json': infer J } } ? J : C extends { content: unknown } ? unknown : null;
type Success<O> = O extends { responses: infer S } ? S[keyof S & (200 | 201 | 202 | 204)] : never;

/** What `method` on the route answers (its success body). */
export type AnswerOf<M extends Method, R> = Json<Success<OperationAt<M, R>>>;
/** The JSON body `method` on the route takes (an empty object where it takes none). */
export type BodyOf<M extends Method, R> =
  OperationAt<M, R> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : Record<string, never>;
/** The query parameters of a GET. */
export type QueryOf<R> = OperationAt<'GET', R> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** The routes whose GET answers a cursor-paged list (`data`, `has_more`). */
export type ListRoute = { [R in Route]: AnswerOf<'GET', R> extends { data: unknown[]; has_more: boolean } ? R : never }[Route];

/** One resource as a GET of its route answers it: `Resource<'/products/{id}'>`. */
export type Resource<R extends RoutesOf<'GET'>> = AnswerOf<'GET', R>;
/** One item of a list route: `Item<'/products'>`. */
export type Item<R extends ListRoute> = AnswerOf<'GET', R> extends { data: (infer T)[] } ? T : never;
/** What another method answers: `Reply<'POST', '/email/templates/{id}/preview'>`. */
export type Reply<M extends Method, R extends RoutesOf<M>> = AnswerOf<M, R>;
/** The body a route takes: `Body<'POST', '/products'>`. */
export type Body<M extends Method, R extends RoutesOf<M>> = BodyOf<M, R>;
/** The query a list route takes: `Query<'/products'>`. */
export type Query<R extends RoutesOf<'GET'>> = QueryOf<R>;
