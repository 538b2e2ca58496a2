import { LoadingState } from '@/app/components/states';

export default function Loading() {
  return <LoadingState label="Loading the approval queue…" />;
}
