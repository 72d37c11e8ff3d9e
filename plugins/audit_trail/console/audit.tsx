import { useState } from 'preact/hooks';
import { Field, FilterForm, PageHeader, ResourceList, useCursorList, when } from '../../../console/src/kit';

/** Who did what and when: every domain event and administrative act, filtered. */
export function AuditTrailPage() {
  const [type, setType] = useState('');
  const [resource, setResource] = useState('');
  const [actor, setActor] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const list = useCursorList('/audit-events', {
    type: type || undefined,
    resource_id: resource || undefined,
    actor_id: actor || undefined,
    from: from || undefined,
    to: to || undefined,
  });
  return (
    <>
      <PageHeader title="Audit trail" />
      <FilterForm onSubmit={list.reload} submit="Filter">
        <Field label="Types (comma-separated)" value={type} onValue={setType} />
        <Field label="Resource id" value={resource} onValue={setResource} />
        <Field label="Actor id" value={actor} onValue={setActor} />
        <Field label="From" type="date" value={from} onValue={setFrom} />
        <Field label="To" type="date" value={to} onValue={setTo} />
      </FilterForm>
      <ResourceList
        list={list}
        label="Audit events"
        empty="No audit events."
        columns={[
          { title: 'When', cell: (e) => when(e.created_at) },
          { title: 'Type', cell: (e) => e.type },
          { title: 'Actor', cell: (e) => `${e.actor.type}${e.actor.name ? ` ${e.actor.name}` : e.actor.id ? ` ${e.actor.id}` : ''}` },
          { title: 'Resource', cell: (e) => (e.resource.id ? `${e.resource.type ?? ''} ${e.resource.id}` : '-') },
          { title: 'Request', cell: (e) => e.request_id ?? '-' },
        ]}
      />
    </>
  );
}
