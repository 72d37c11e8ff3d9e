import { errors, fail, type Db } from '../../core/sdk';

export interface StageDef {
  name: string;
  probability: number;
}

export const DEFAULT_STAGES: StageDef[] = [
  { name: 'lead', probability: 10 },
  { name: 'qualified', probability: 25 },
  { name: 'proposal', probability: 50 },
  { name: 'negotiation', probability: 75 },
  { name: 'won', probability: 100 },
  { name: 'lost', probability: 0 },
];

export async function stagesOf(db: Db, storeId: string, lock = false): Promise<StageDef[]> {
  const [r] = await db.query(`SELECT stages FROM pipeline_stages WHERE store_id = $1${lock ? ' FOR UPDATE' : ''}`, [storeId]);
  return (r?.stages as StageDef[]) ?? DEFAULT_STAGES;
}

/** The stage named, or 400 naming `param` with the stages there are. */
export function stageNamed(stages: StageDef[], name: string, param: string): StageDef {
  const s = stages.find((x) => x.name === name);
  if (!s) throw errors.validation(`Unknown ${param} '${name}': the stages are ${stages.map((x) => x.name).join(', ')}.`, param);
  return s;
}

/** Replaces the stages; a stage that still holds deals cannot go (409 stage_in_use, naming it). */
export async function setStages(db: Db, storeId: string, stages: StageDef[], now: Date) {
  const seen = new Set<string>();
  stages.forEach((s, i) => {
    if (seen.has(s.name)) throw errors.validation(`Duplicate stage name '${s.name}'.`, `stages.${i}.name`);
    seen.add(s.name);
  });
  // The row lock (or, on first use, the insert below) orders concurrent changes of the stages.
  await db.query(`INSERT INTO pipeline_stages (store_id, stages, updated_at) VALUES ($1, $2::text::jsonb, $3) ON CONFLICT (store_id) DO NOTHING`, [
    storeId,
    JSON.stringify(DEFAULT_STAGES),
    now,
  ]);
  await stagesOf(db, storeId, true);
  const [used] = await db.query(`SELECT stage FROM deals WHERE store_id = $1 AND NOT (stage = ANY($2::text[])) LIMIT 1`, [storeId, [...seen]]);
  if (used) throw fail('stage_in_use', `Stage '${used.stage}' still holds deals; move them first.`, 'stages');
  await db.query('UPDATE pipeline_stages SET stages = $2::text::jsonb, updated_at = $3 WHERE store_id = $1', [storeId, JSON.stringify(stages), now]);
  return stages;
}
