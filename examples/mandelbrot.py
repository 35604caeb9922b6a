"""The Mandelbrot set, as the numba-examples and NVIDIA's Numba tutorials draw it: a device
function iterating z = z * z + c on complex numbers, a 2-D grid-stride kernel over the image,
checked pixel by pixel against the same function run on the CPU."""
import numpy as np
from numba import cuda


def escape_time(x, y, max_iters):
    c = complex(x, y)
    z = 0.0j
    for i in range(max_iters):
        z = z * z + c
        if z.real * z.real + z.imag * z.imag >= 4:
            return i
    return 255


mandel_gpu = cuda.jit(device=True)(escape_time)


@cuda.jit
def mandel_kernel(min_x, max_x, min_y, max_y, image, iters):
    height, width = image.shape
    pixel_size_x = (max_x - min_x) / width
    pixel_size_y = (max_y - min_y) / height
    start_x, start_y = cuda.grid(2)
    grid_x = cuda.gridDim.x * cuda.blockDim.x
    grid_y = cuda.gridDim.y * cuda.blockDim.y
    for x in range(start_x, width, grid_x):
        real = min_x + x * pixel_size_x
        for y in range(start_y, height, grid_y):
            imag = min_y + y * pixel_size_y
            image[y, x] = mandel_gpu(real, imag, iters)


def main():
    image = np.zeros((96, 144), dtype=np.uint8)
    d_image = cuda.to_device(image)
    mandel_kernel[(4, 4), (8, 8)](-2.0, 1.0, -1.0, 1.0, d_image, 40)
    image = d_image.copy_to_host()
    height, width = image.shape
    expected = np.array([[escape_time(-2.0 + x * 3.0 / width, -1.0 + y * 2.0 / height, 40)
                          for x in range(width)] for y in range(height)], dtype=np.uint8)
    np.testing.assert_array_equal(image, expected)
    inside = int((image == 255).sum())
    print("pixels inside the set: %d of %d" % (inside, image.size))
    for row in image[::12, ::6]:
        print("".join("#" if v == 255 else "+" if v > 8 else "." for v in row))


if __name__ == "__main__":
    main()
