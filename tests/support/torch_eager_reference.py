#!/usr/bin/env python3
"""Writes a small CNN as ONNX plus PyTorch eager's own outputs, with ATen's oneDNN kernels on and
off, so tests can hold infergap's `torch` platform to PyTorch eager bit for bit.

    torch_eager_reference.py OUTDIR  ->  OUTDIR/{model.onnx, x.npy, y_mkldnn.npy, y_native.npy}
"""
import sys

import numpy as np
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        # 1x16x64x64 inputs: large enough that ATen picks oneDNN for the 3x3 convs.
        self.conv1 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv2 = torch.nn.Conv2d(32, 32, 3, stride=2, padding=1)
        self.gap = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))
        x = torch.nn.functional.hardswish(self.conv2(x))
        x = torch.flatten(self.gap(x), 1)
        return torch.softmax(self.fc(x), dim=1)


def main(out):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    net = Net().eval()
    x = torch.rand(1, 16, 64, 64)
    with torch.no_grad():
        y_mkldnn = net(x)
        with torch.backends.mkldnn.flags(enabled=False):
            y_native = net(x)
    torch.onnx.export(net, x, f"{out}/model.onnx", opset_version=14, input_names=["x"],
                      output_names=["y"])
    np.save(f"{out}/x.npy", x.numpy())
    np.save(f"{out}/y_mkldnn.npy", y_mkldnn.numpy())
    np.save(f"{out}/y_native.npy", y_native.numpy())


if __name__ == "__main__":
    main(sys.argv[1])
