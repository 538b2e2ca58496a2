import { FieldError } from '@/app/components/field';
import type { FormState } from '@/app/components/form-state';

export type RoleOption = { value: string; description: string };

/** The roles as a fieldset of checkboxes, with its inline error. */
export function RoleCheckboxes({
  options,
  checked,
  state,
  idPrefix,
}: {
  options: RoleOption[];
  checked: readonly string[];
  state?: FormState;
  idPrefix: string;
}) {
  const error = state?.fields?.roles;
  return (
    <fieldset
      className="space-y-1.5"
      aria-describedby={error ? `${idPrefix}-roles-error` : undefined}
    >
      <legend className="mb-1 text-sm font-medium text-slate-800">Roles</legend>
      {options.map((o) => (
        <label key={o.value} className="flex items-start gap-2 text-sm">
          <input
            type="checkbox"
            name="roles"
            value={o.value}
            defaultChecked={checked.includes(o.value)}
            className="mt-0.5 size-4 rounded border-slate-300 accent-indigo-600"
          />
          <span>
            <span className="font-medium text-slate-800">{o.value}</span>
            <span className="block text-xs text-slate-500">{o.description}</span>
          </span>
        </label>
      ))}
      {error && <FieldError id={`${idPrefix}-roles-error`} error={error} />}
    </fieldset>
  );
}
