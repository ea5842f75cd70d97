/** Every action asks first: an accessible modal (Radix Dialog) with the action's own form, if any. */
import * as Dialog from '@radix-ui/react-dialog';
import { useState, type ReactNode } from 'react';
import { ApiError } from '../api';
import { useT } from '../i18n';

export function ConfirmDialog(props: {
  trigger: ReactNode;
  title: string;
  message: string;
  children?: ReactNode;
  onConfirm: () => Promise<unknown>;
  testId?: string;
  /** The action's form is not filled in right yet (it says why): the confirm button waits. */
  invalid?: boolean;
}) {
  const { t } = useT();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      setOpen(false);
    } catch (err) {
      setError(err instanceof ApiError ? err.details : t('error.network'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog.Root open={open} onOpenChange={(o) => { setOpen(o); if (!o) setError(null); }}>
      <Dialog.Trigger asChild>{props.trigger}</Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="overlay" />
        <Dialog.Content className="dialog" data-testid={props.testId}>
          <Dialog.Title>{props.title}</Dialog.Title>
          <Dialog.Description>{props.message}</Dialog.Description>
          {props.children}
          {error && (
            <div role="alert" className="error">
              <strong>{t('error.title')}:</strong> {error}
            </div>
          )}
          <div className="dialog-buttons">
            <Dialog.Close asChild>
              <button type="button" className="secondary">{t('confirm.cancel')}</button>
            </Dialog.Close>
            <button type="button" className="primary" disabled={busy || props.invalid} onClick={run}>{t('confirm.ok')}</button>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
