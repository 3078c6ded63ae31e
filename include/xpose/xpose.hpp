// Umbrella header.
#pragma once
#include "xpose/desc.hpp"
#include "xpose/plan.hpp"
#include "xpose/status.hpp"
