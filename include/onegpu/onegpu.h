// onegpu/onegpu.h - the whole public device API.
#pragma once

#include "onegpu/adapter.h"
#include "onegpu/buffer.h"
#include "onegpu/capabilities.h"
#include "onegpu/device.h"
#include "onegpu/encoder.h"
#include "onegpu/errors.h"
#include "onegpu/format.h"
#include "onegpu/kernel.h"
#include "onegpu/render.h"
#include "onegpu/shader.h"
#include "onegpu/surface.h"
#include "onegpu/tensor.h"
#include "onegpu/timestamps.h"
