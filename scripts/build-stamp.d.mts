export declare const BUILD_SOURCES: readonly string[];
export declare const STAMP_FILE: string;
export declare function sourceStamp(root: string): string;
export declare function buildIsCurrent(root: string, distDir: string, stamp?: string): boolean;
