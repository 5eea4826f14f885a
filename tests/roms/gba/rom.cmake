# Game Boy Advance test ROM (included by ../CMakeLists.txt, whose variables it uses): ARM
# assembly, assembled, linked and turned into a bare cartridge image with the ARM assembler,
# linker and objcopy of binutils-arm-none-eabi. framelock_test.s writes the cartridge header
# itself (no boot logo, the complement check computed by the assembler); gba.ld lays out the
# ROM at 0x08000000 and pins the contract block in IWRAM.
#
# Appends the ROM to `roms` and sets FRAMELOCK_TEST_GBA_ROM (empty without the tools).

if(FRAMELOCK_ARM_AS AND FRAMELOCK_ARM_LD AND FRAMELOCK_ARM_OBJCOPY)
    set(gba_dir ${CMAKE_CURRENT_SOURCE_DIR}/gba)
    set(gba_obj ${obj_dir}/gba)
    set(gba_rom ${rom_dir}/framelock_test.gba)
    file(MAKE_DIRECTORY ${gba_obj})
    add_custom_command(
        OUTPUT ${gba_rom}
        COMMAND ${FRAMELOCK_ARM_AS} -I ${CMAKE_CURRENT_SOURCE_DIR}/common -mcpu=arm7tdmi -o ${gba_obj}/framelock_test.o ${gba_dir}/framelock_test.s
        COMMAND ${FRAMELOCK_ARM_LD} -T ${gba_dir}/gba.ld -Map ${gba_obj}/framelock_test.map
                -o ${gba_obj}/framelock_test.elf ${gba_obj}/framelock_test.o
        COMMAND ${FRAMELOCK_ARM_OBJCOPY} -O binary ${gba_obj}/framelock_test.elf ${gba_rom}
        DEPENDS ${gba_dir}/framelock_test.s ${gba_dir}/gba.ld ${arm_includes}
        WORKING_DIRECTORY ${gba_obj}
        COMMENT "Assembling Game Boy Advance test ROM framelock_test.gba"
        VERBATIM)
    list(APPEND roms ${gba_rom})
    set(FRAMELOCK_TEST_GBA_ROM ${gba_rom} CACHE INTERNAL "Game Boy Advance test ROM (empty: not built)")
else()
    set(FRAMELOCK_TEST_GBA_ROM "" CACHE INTERNAL "Game Boy Advance test ROM (empty: not built)")
    message(STATUS "binutils-arm-none-eabi (arm-none-eabi-as, -ld, -objcopy) not found: the Game Boy "
                   "Advance test ROM is not built and the tests needing it will be skipped "
                   "(Debian: apt-get install binutils-arm-none-eabi).")
endif()
