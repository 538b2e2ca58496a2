import Link from 'next/link';
import { buttonClass } from '@/app/components/button-class';
import { SearchShortcut } from '@/app/components/audit/search-shortcut';
import { inputClass } from '@/app/components/field';
import { DECISIONS, INTERCEPTION_POINTS, MODES } from '@checkpoint/agent-hooks';
import type { RawParams } from '@/lib/server/audit/filters';

type Option = { value: string; label: string };

const any = { value: '', label: 'any' };

function value(raw: RawParams, key: string): string {
  const v = raw[key];
  return (Array.isArray(v) ? v[0] : v) ?? '';
}

/** A `datetime-local` value (UTC) from what the URL holds. */
function localValue(raw: string): string {
  if (!raw) return '';
  const d = new Date(/(?:Z|[+-]\d\d:?\d\d)$/i.test(raw) ? raw : `${raw}Z`);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString().slice(0, 16);
}

function Labelled({
  id,
  label,
  children,
}: {
  id: string;
  label: string;
  children: React.ReactNode;
}) {
  return (
    <div className="space-y-0.5">
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">
        {label}
      </label>
      {children}
    </div>
  );
}

function Select({
  name,
  label,
  raw,
  options,
}: {
  name: string;
  label: string;
  raw: RawParams;
  options: Option[];
}) {
  const id = `f-${name}`;
  return (
    <Labelled id={id} label={label}>
      <select id={id} name={name} defaultValue={value(raw, name)} className={inputClass}>
        {[any, ...options].map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </Labelled>
  );
}

function Text({
  name,
  label,
  raw,
  placeholder,
}: {
  name: string;
  label: string;
  raw: RawParams;
  placeholder?: string;
}) {
  const id = `f-${name}`;
  return (
    <Labelled id={id} label={label}>
      <input
        id={id}
        name={name}
        defaultValue={value(raw, name)}
        placeholder={placeholder}
        className={inputClass}
      />
    </Labelled>
  );
}

const opts = (values: readonly string[]): Option[] => values.map((v) => ({ value: v, label: v }));

/**
 * The search form: a plain GET form, so every filter lands in the URL
 * (bookmarkable, shareable, and the export reads the same parameters).
 */
export function SearchForm({
  raw,
  hosts,
}: {
  raw: RawParams;
  hosts: { id: string; name: string }[];
}) {
  return (
    <form
      method="get"
      action="/audit"
      aria-label="Search records"
      className="mb-4 rounded-lg border border-slate-200 bg-white p-3 shadow-sm"
    >
      <div className="grid grid-cols-2 gap-x-3 gap-y-2 sm:grid-cols-3 lg:grid-cols-6">
        <Text name="session" label="Session id (exact)" raw={raw} />
        <Text name="agent" label="Agent id" raw={raw} />
        <Select
          name="host"
          label="Host"
          raw={raw}
          options={hosts.map((h) => ({ value: h.id, label: h.name }))}
        />
        <Select
          name="point"
          label="Interception point"
          raw={raw}
          options={opts(INTERCEPTION_POINTS)}
        />
        <Select name="decision" label="Decision" raw={raw} options={opts(DECISIONS)} />
        <Text name="reason" label="Reason starts with" raw={raw} placeholder="host_error:" />
        <Select
          name="resolved"
          label="Resolved by"
          raw={raw}
          options={[
            { value: 'approval', label: 'approval' },
            { value: 'rejection', label: 'rejection' },
            { value: 'none', label: 'not consulted' },
          ]}
        />
        <Select
          name="fold"
          label="Fold truncated"
          raw={raw}
          options={[
            { value: 'true', label: 'yes' },
            { value: 'false', label: 'no' },
          ]}
        />
        <Select name="mode" label="Mode" raw={raw} options={opts(MODES)} />
        <Labelled id="f-from" label="Received from (UTC)">
          <input
            id="f-from"
            type="datetime-local"
            name="from"
            defaultValue={localValue(value(raw, 'from'))}
            className={inputClass}
          />
        </Labelled>
        <Labelled id="f-to" label="Received before (UTC)">
          <input
            id="f-to"
            type="datetime-local"
            name="to"
            defaultValue={localValue(value(raw, 'to'))}
            className={inputClass}
          />
        </Labelled>
        <div className="flex items-end pb-1.5">
          <label className="inline-flex items-center gap-2 text-sm text-slate-700">
            <input
              type="checkbox"
              name="host_error"
              value="1"
              defaultChecked={value(raw, 'host_error') !== ''}
              className="size-4 rounded border-slate-300"
            />
            Host errors only
          </label>
        </div>
      </div>
      <div className="mt-3 flex items-center gap-2">
        <button type="submit" className={buttonClass('primary')}>
          Search
        </button>
        <Link href="/audit" className={buttonClass('ghost')}>
          Clear
        </Link>
        <span className="ml-auto hidden text-xs text-slate-500 sm:inline">
          Press <kbd className="rounded border border-slate-300 px-1 font-mono">/</kbd> to search by
          session id
        </span>
        <SearchShortcut targetId="f-session" />
      </div>
    </form>
  );
}
