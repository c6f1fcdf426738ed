/** The bundle script's exports, for the test that checks the committed bundle is current. */
export declare const BUNDLE: string;
export declare const HOLD_BUNDLE: string;
export declare function bundleText(): Promise<string>;
export declare function bundleTexts(): Promise<Record<string, string>>;
