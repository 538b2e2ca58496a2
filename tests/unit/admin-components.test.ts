import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import {
  breadcrumb,
  changeHistory,
  detailHeader,
  emptyHistory,
  listCells,
} from './admin-components.fixtures';

// The shared admin components must render exactly what the host and user
// pages wrote inline before (the fixtures hold both).
describe('admin page components render the markup the pages had', () => {
  it.each([
    ['Breadcrumb', breadcrumb],
    ['DetailHeader', detailHeader],
    ['ChangeHistory', changeHistory],
    ['ChangeHistory (empty)', emptyHistory],
    ['ActionsTh, LastSeen, ManageLink', listCells],
  ])('%s', (_name, [before, after]) => {
    const html = renderToStaticMarkup(after);
    expect(html).toBe(renderToStaticMarkup(before));
    expect(html.length).toBeGreaterThan(40);
  });
});
