/** The Checkpoint mark: a gate with a check. Decorative next to the name. */
export function Logo({ className = 'size-5' }: { className?: string }) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" className={className} fill="none">
      <rect x="2" y="2" width="20" height="20" rx="5" className="fill-indigo-500" />
      <path
        d="M7 12.5l3.2 3.2L17 8.8"
        stroke="white"
        strokeWidth="2.4"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}
