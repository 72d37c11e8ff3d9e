import { useState } from 'preact/hooks';
import {
  api,
  ErrorLine,
  FilterForm,
  PageHeader,
  ResourceList,
  Select,
  Status,
  TextArea,
  useAction,
  useConsole,
  useCursorList,
  valuesOf,
  when,
  type Item,
  type Query,
} from '../../../console/src/kit';

type Review = Item<'/reviews'>;
type ReviewStatus = NonNullable<Query<'/reviews'>['status']>;
const STATUSES = valuesOf<ReviewStatus>({ pending: true, approved: true, rejected: true });

/** Review moderation (issue 46): pending first, approve or reject once, answer publicly. */
export function ReviewsPage() {
  const c = useConsole();
  const [status, setStatus] = useState<ReviewStatus | ''>('pending');
  const [verified, setVerified] = useState<'' | 'true' | 'false'>('');
  const list = useCursorList('/reviews', { status, verified_purchase: verified === '' ? '' : verified === 'true' }, { watch: [status, verified] });
  const act = useAction();
  const [answering, setAnswering] = useState<string | null>(null);
  const [answer, setAnswer] = useState('');
  const decide = (r: Review, decision: 'approve' | 'reject') =>
    act.run(async () => {
      const res = await api('POST', `/reviews/${r.id}/${decision}`, {});
      if (!res.ok) return act.setError(res.error);
      await list.reload();
    });
  const respond = (r: Review) =>
    act.run(async () => {
      const res = await api('POST', `/reviews/${r.id}/respond`, { body: answer });
      if (!res.ok) return act.setError(res.error);
      setAnswering(null);
      setAnswer('');
      await list.reload();
    });
  return (
    <>
      <PageHeader title="Reviews" />
      <FilterForm onSubmit={list.reload}>
        <Select label="Status" value={status} onValue={setStatus} options={[['', 'any'], ...STATUSES]} />
        <Select
          label="Purchase"
          value={verified}
          onValue={setVerified}
          options={[
            ['', 'any'],
            ['true', 'verified'],
            ['false', 'not verified'],
          ]}
        />
      </FilterForm>
      <ErrorLine error={act.error} />
      <ResourceList
        list={list}
        label="Reviews"
        empty="No reviews."
        columns={[
          { title: 'Rating', cell: (r) => `${'★'.repeat(r.rating)}${'☆'.repeat(5 - r.rating)}` },
          {
            title: 'Review',
            cell: (r) => (
              <>
                {r.title && <strong>{r.title} </strong>}
                {r.body}
                <div class="sub">
                  {r.author_name}
                  {r.verified_purchase ? ' · verified purchase' : ''} · <a href={`#/products/${r.product_id}`}>product</a>
                </div>
                {r.response && <div class="sub">Answer: {r.response.body}</div>}
                {answering === r.id && (
                  <div class="form">
                    <TextArea label="Public answer" value={answer} onValue={setAnswer} rows={2} />
                    <button class="primary" disabled={act.busy || !answer.trim()} onClick={() => respond(r)}>
                      Publish answer
                    </button>
                  </div>
                )}
              </>
            ),
          },
          { title: 'Status', cell: (r) => <Status status={r.status} /> },
          { title: 'Written', cell: (r) => when(r.created_at) },
          {
            title: 'Actions',
            cell: (r) => (
              <div class="buttons">
                {r.status === 'pending' && c.may('reviews.approve') && (
                  <button class="primary" disabled={act.busy} onClick={() => decide(r, 'approve')} aria-label={`Approve review by ${r.author_name}`}>
                    Approve
                  </button>
                )}
                {r.status === 'pending' && c.may('reviews.reject_review') && (
                  <button class="danger" disabled={act.busy} onClick={() => decide(r, 'reject')} aria-label={`Reject review by ${r.author_name}`}>
                    Reject
                  </button>
                )}
                {r.status !== 'rejected' && c.may('reviews.respond') && answering !== r.id && (
                  <button
                    disabled={act.busy}
                    onClick={() => (setAnswering(r.id), setAnswer(r.response?.body ?? ''))}
                    aria-label={`Answer review by ${r.author_name}`}
                  >
                    Answer
                  </button>
                )}
              </div>
            ),
          },
        ]}
      />
    </>
  );
}
