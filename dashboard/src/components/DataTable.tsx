/**
 * The dashboard's one table: columns (a header, the cell of a row, its class), the rows, an empty state,
 * and optionally a link of each row (on the first cell: an <a> to the row's page, followed in the app).
 * The look is the app's `orders` table (styles.css): header cells `th scope="col"`, and every cell
 * carries its column's header as `data-label` (the stacked rows of small screens).
 */
import type { HTMLAttributes, MouseEvent, ReactNode } from 'react';

export interface Column<R> {
  /** the header; also each cell's `data-label` unless `label` says otherwise */
  header: ReactNode;
  /** the cell of a row */
  cell: (row: R, index: number) => ReactNode;
  /** the cell's `data-label` when the header is no text */
  label?: string;
  /** class of the cells (`mono`, `small`, `break`, `num`…) */
  className?: string;
  /** class of the header cell */
  headerClassName?: string;
  /** `data-testid` of the cells */
  testId?: string;
}

export interface DataTableProps<R> {
  columns: readonly (Column<R> | false | null | undefined)[];
  rows: readonly R[];
  /** React's key of a row */
  rowKey: (row: R, index: number) => string;
  /** more attributes of a row's <tr> (`data-uuid`, `className`, …) */
  rowProps?: (row: R, index: number) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;
  /** the link of a row: its first cell's content becomes an <a> to `href`, opened by `onOpen` */
  rowLink?: (row: R) => { href: string; onOpen: () => void } | null;
  /** shown under the table when there is no row (nothing when absent) */
  empty?: ReactNode;
  /** the table's class (`orders`) */
  className?: string;
  /** attributes of the <table> itself (`data-testid`, `aria-label`, …) */
  tableProps?: HTMLAttributes<HTMLTableElement> & Record<`data-${string}`, string | undefined>;
}

export function DataTable<R>({ columns, rows, rowKey, rowProps, rowLink, empty, className = 'orders', tableProps }: DataTableProps<R>) {
  const cols = columns.filter((c): c is Column<R> => !!c);
  const labelOf = (c: Column<R>) => c.label ?? (typeof c.header === 'string' ? c.header : undefined);
  return (
    <>
      <table className={className} {...tableProps}>
        <thead>
          <tr>{cols.map((c, i) => <th key={i} scope="col" className={c.headerClassName}>{c.header}</th>)}</tr>
        </thead>
        <tbody>
          {rows.map((r, ri) => {
            const link = rowLink?.(r) ?? null;
            return (
              <tr key={rowKey(r, ri)} {...rowProps?.(r, ri)}>
                {cols.map((c, ci) => {
                  const content = c.cell(r, ri);
                  return (
                    <td key={ci} data-label={labelOf(c)} className={c.className} data-testid={c.testId}>
                      {ci === 0 && link ? (
                        <a href={link.href} onClick={(e: MouseEvent<HTMLAnchorElement>) => { e.preventDefault(); link.onOpen(); }}>{content}</a>
                      ) : content}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && empty ? <p className="empty">{empty}</p> : null}
    </>
  );
}
