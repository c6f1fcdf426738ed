/** The bundle script's exports, for the test that checks the committed bundle is current. */
export declare const BUNDLE: string;
export declare function bundleText(): Promise<string>;
