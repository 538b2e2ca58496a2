import { route } from '@/lib/server/http/route';

/** The signed-in user (re-read from the database), for scripts and the UI. */
export const GET = route({ auth: 'user' }, ({ user }) => ({
  id: user.id,
  email: user.email,
  name: user.name,
  roles: user.roles,
}));
