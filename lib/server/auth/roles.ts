import 'server-only';
import { Role } from '@/lib/generated/prisma/enums';

export { Role };

/** Every role, in the order the UI lists them. */
export const ROLES = [Role.admin, Role.reviewer, Role.auditor] as const;

/** What each role is for, shown next to the role checkboxes. */
export const ROLE_DESCRIPTIONS: Record<Role, string> = {
  admin: 'Everything, including users and hosts',
  reviewer: 'Decides approval requests',
  auditor: 'Searches and exports the audit store',
};

/**
 * The areas of the app and who may use them. Admins may use everything;
 * the other roles only their own area. The nav and `requireArea()` read this
 * table; API routes pass the same lists as `roles` (never an empty list,
 * which would mean "any signed-in user").
 */
export const AREAS = {
  approvals: { path: '/approvals', label: 'Approvals', roles: [Role.admin, Role.reviewer] },
  audit: { path: '/audit', label: 'Audit', roles: [Role.admin, Role.auditor] },
  hosts: { path: '/hosts', label: 'Hosts', roles: [Role.admin] },
  users: { path: '/users', label: 'Users', roles: [Role.admin] },
} as const satisfies Record<string, { path: string; label: string; roles: readonly Role[] }>;

export type Area = keyof typeof AREAS;

/** True when a holder of `have` may act as one of `allowed` (admin always may). */
export function hasAnyRole(have: readonly Role[], allowed: readonly Role[]): boolean {
  if (have.includes(Role.admin)) return true;
  return allowed.some((r) => have.includes(r));
}

/** True when a holder of `roles` may use `area`. */
export function canUseArea(roles: readonly Role[], area: Area): boolean {
  return hasAnyRole(roles, AREAS[area].roles);
}

/** The areas a holder of `roles` may use, in nav order. */
export function areasFor(roles: readonly Role[]): Area[] {
  return (Object.keys(AREAS) as Area[]).filter((a) => canUseArea(roles, a));
}

/** Admin-only pages that are not areas of their own (app/settings). */
export const ADMIN_SETTINGS = [
  {
    href: '/settings/slack',
    label: 'Slack',
    text: 'Connect Slack: channels, buttons, linked users.',
  },
  {
    href: '/settings/signing-keys',
    label: 'Signing keys',
    text: 'The keys that sign receipts and tree heads; rotation.',
  },
  {
    href: '/settings/witnesses',
    label: 'Witnesses',
    text: 'Who else keeps a copy of every signed tree head.',
  },
] as const;

/** The pages a holder of `roles` may open from the navigation and the start page, in nav order. */
export function placesFor(roles: readonly Role[]): { href: string; label: string }[] {
  const areas = areasFor(roles).map((a) => ({ href: AREAS[a].path, label: AREAS[a].label }));
  return roles.includes(Role.admin)
    ? [...areas, ...ADMIN_SETTINGS.map(({ href, label }) => ({ href, label }))]
    : areas;
}

/** Parses a list of role names; unknown names make it null (fail closed). */
export function parseRoles(values: readonly string[]): Role[] | null {
  const out = new Set<Role>();
  for (const v of values) {
    if (!(ROLES as readonly string[]).includes(v)) return null;
    out.add(v as Role);
  }
  return ROLES.filter((r) => out.has(r));
}
