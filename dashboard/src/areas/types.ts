/** What every area page of the dashboard gets. */
import type { Me, Permission } from '../api';

export interface AreaProps {
  me: Me;
  /** the path inside the area (after its own prefix, '' at its start), with the query string */
  sub: string;
  can: (permission: Permission) => boolean;
}
