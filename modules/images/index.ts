/**
 * The images module's public surface: what code outside modules/images may import (dependency-cruiser
 * `module-public-surface`). The module file is read by the registry directly; tests and benches may reach inside.
 */
export { Image } from './image.entity';
export { assertMagic, imageTypeOf, MAX_IMAGE_BYTES } from './image-bytes';
export { resolveImageInput } from './images.service';
