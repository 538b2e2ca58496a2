'use client';

import type { ButtonHTMLAttributes } from 'react';
import { useFormStatus } from 'react-dom';
import { type ButtonVariant, buttonClass } from './button-class';

type Props = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: ButtonVariant;
  /** Label while the enclosing form's action runs. */
  pendingLabel?: string;
};

/** A submit button that disables itself while its form is submitting. */
export function SubmitButton({
  variant = 'primary',
  pendingLabel,
  children,
  className,
  ...rest
}: Props) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      disabled={pending || rest.disabled}
      aria-disabled={pending || rest.disabled}
      className={buttonClass(variant, className)}
      {...rest}
    >
      {pending && pendingLabel ? pendingLabel : children}
    </button>
  );
}
