/** The job a client follows: `GET STORE/jobs/{id}`. */
export interface JobObject {
  object: 'job';
  id: string;
  type: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  progress: { done: number; total: number | null };
  result: unknown;
  error: { message: string; code?: string } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  url: string;
}
